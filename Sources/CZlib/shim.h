// zlib, for the MongoDB wire protocol's OP_COMPRESSED (compress/uncompress need no wrapper).
#include <zlib.h>
