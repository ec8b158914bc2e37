exports = async function() {
  const readers = context.services.get("mongodb-atlas").db("product").collection("customUserData");
  await readers.updateMany({ tokenUpdated: { $lt: new Date(Date.now() - 90 * 864e5) } }, { $unset: { fcmToken: "" } });
};
