// libyaml imports cleanly; the shim only exists so the module map has one header to name.
#include <yaml.h>
