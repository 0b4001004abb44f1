#include "a/a.h"
#include <vector>
