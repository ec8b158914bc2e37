// An app's function files and tests import `Switchyard` alone: a function's signature and body use BSON values,
// the collection API from `context.services.mongodb()` (filters, updates, change events) and the push message
// types `context.services.messaging` takes, all from the modules below. Messaging is re-exported whole because
// what it makes public is what a message is built from (the FCM fields, the portable notification, the
// platforms' options); its transports stay package-internal.
@_exported import BSON
@_exported import DocumentStore
@_exported import Messaging
