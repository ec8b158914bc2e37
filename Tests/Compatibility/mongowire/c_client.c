/* The MongoDB C driver (Debian's libmongoc) against Switchyard's wire protocol: ping, insert, a duplicate key's
 * error, a cursor read through getMore, a count. Prints "ok c" when every check held. */
#include <mongoc/mongoc.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(condition, what)                                             \
    do {                                                                   \
        if (!(condition)) {                                                \
            fprintf(stderr, "failed: %s (%s)\n", what, error.message);     \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

int main(int argc, char **argv) {
    bson_error_t error = {0};
    mongoc_init();
    mongoc_client_t *client = mongoc_client_new(argv[1]);
    CHECK(client != NULL, "the connection string parses");
    bson_t *ping = BCON_NEW("ping", BCON_INT32(1));
    CHECK(mongoc_client_command_simple(client, "admin", ping, NULL, NULL, &error), "ping");
    mongoc_collection_t *books = mongoc_client_get_collection(client, "ctests", "books");
    mongoc_collection_drop(books, NULL);
    for (int i = 0; i < 250; i++) {
        bson_t *book = BCON_NEW("_id", BCON_INT32(i), "title", BCON_UTF8("C book"));
        CHECK(mongoc_collection_insert_one(books, book, NULL, NULL, &error), "insert");
        bson_destroy(book);
    }
    bson_t *duplicate = BCON_NEW("_id", BCON_INT32(7));
    bson_t reply;
    CHECK(!mongoc_collection_insert_one(books, duplicate, NULL, &reply, &error), "a duplicate _id is refused");
    CHECK(error.code == 11000, "the duplicate's code is 11000");
    bson_destroy(&reply);
    bson_t *filter = bson_new();
    bson_t *options = BCON_NEW("batchSize", BCON_INT32(20));
    mongoc_cursor_t *cursor = mongoc_collection_find_with_opts(books, filter, options, NULL);
    const bson_t *document;
    int seen = 0;
    while (mongoc_cursor_next(cursor, &document)) seen++;
    CHECK(!mongoc_cursor_error(cursor, &error), "the cursor reads to its end");
    CHECK(seen == 250, "every document is read through getMore");
    int64_t count = mongoc_collection_count_documents(books, filter, NULL, NULL, NULL, &error);
    CHECK(count == 250, "count_documents");
    mongoc_cursor_destroy(cursor);
    bson_destroy(options);
    bson_destroy(filter);
    bson_destroy(duplicate);
    bson_destroy(ping);
    mongoc_collection_destroy(books);
    mongoc_client_destroy(client);
    mongoc_cleanup();
    printf("ok c\n");
    return 0;
}
