// libpq, PostgreSQL's client library: its header imports as it is (no variadic calls or macros the engine needs).
#include <libpq-fe.h>
