// pcre2.h names its functions and types by macros that pick the code unit width: the 8-bit library's, as
// functions Swift can call.
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

static inline pcre2_code *cpcre2_compile(
    const unsigned char *pattern, size_t length, uint32_t options, int *error, size_t *offset) {
    return pcre2_compile(pattern, length, options, error, offset, NULL);
}
static inline void cpcre2_code_free(pcre2_code *code) { pcre2_code_free(code); }
static inline pcre2_match_context *cpcre2_match_context_create(void) { return pcre2_match_context_create(NULL); }
static inline int cpcre2_set_match_limit(pcre2_match_context *context, uint32_t limit) {
    return pcre2_set_match_limit(context, limit);
}
static inline int cpcre2_set_depth_limit(pcre2_match_context *context, uint32_t limit) {
    return pcre2_set_depth_limit(context, limit);
}
static inline int cpcre2_set_heap_limit(pcre2_match_context *context, uint32_t kibibytes) {
    return pcre2_set_heap_limit(context, kibibytes);
}
// One pair of offsets: a match is only tested, never taken apart.
static inline pcre2_match_data *cpcre2_match_data_create(void) { return pcre2_match_data_create(1, NULL); }
static inline void cpcre2_match_data_free(pcre2_match_data *data) { pcre2_match_data_free(data); }
static inline int cpcre2_match(
    const pcre2_code *code, const unsigned char *subject, size_t length, uint32_t options, pcre2_match_data *data,
    pcre2_match_context *context) {
    return pcre2_match(code, subject, length, 0, options, data, context);
}
static inline int cpcre2_error_message(int error, unsigned char *buffer, size_t size) {
    return pcre2_get_error_message(error, buffer, size);
}
