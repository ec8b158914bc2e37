/* The MongoDB C driver (Debian's libmongoc) with credentials in its connection string. Run as
 * `c_auth URI authenticated` (an insert and a count run) or `c_auth URI refused` (a wrong password: the first
 * command fails with the server's AuthenticationFailed). Prints "ok c-SCENARIO" when every check held. */
#include <mongoc/mongoc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(condition, what)                                             \
    do {                                                                   \
        if (!(condition)) {                                                \
            fprintf(stderr, "failed: %s (%s)\n", what, error.message);     \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

int main(int argc, char **argv) {
    bson_error_t error = {0};
    if (argc != 3) return 2;
    mongoc_init();
    mongoc_client_t *client = mongoc_client_new(argv[1]);
    CHECK(client != NULL, "the connection string parses");
    mongoc_collection_t *shelf = mongoc_client_get_collection(client, "cauth", "shelf");
    bson_t *book = BCON_NEW("title", BCON_UTF8("C book"));
    bool inserted = mongoc_collection_insert_one(shelf, book, NULL, NULL, &error);
    if (strcmp(argv[2], "refused") == 0) {
        CHECK(!inserted, "a wrong password is refused");
        /* libmongoc reports a failed handshake as its own client error, with the server's message. */
        CHECK(error.domain == MONGOC_ERROR_CLIENT && error.code == MONGOC_ERROR_CLIENT_AUTHENTICATE,
              "the refusal is an authentication failure");
        CHECK(strstr(error.message, "Authentication failed.") != NULL, "the server's message is AuthenticationFailed's");
    } else {
        CHECK(inserted, "an authenticated insert");
        bson_t *filter = bson_new();
        int64_t count = mongoc_collection_count_documents(shelf, filter, NULL, NULL, NULL, &error);
        CHECK(count >= 1, "an authenticated count");
        bson_destroy(filter);
    }
    bson_destroy(book);
    mongoc_collection_destroy(shelf);
    mongoc_client_destroy(client);
    mongoc_cleanup();
    printf("ok c-%s\n", argv[2]);
    return 0;
}
