/* Compiled against the installed SDK with nothing but `pkg-config --cflags
 * modelgw-sdk`, in strict C99: prints the ABI version the header declares. */
#include <modelgw/plugin.h>

#include <stdio.h>

int main(void) {
  mgw_str name = {MGW_ENTRY_SYMBOL, sizeof MGW_ENTRY_SYMBOL - 1};
  printf("%d.%d %.*s\n", MGW_ABI_MAJOR, MGW_ABI_MINOR, (int)name.len, name.ptr);
  return 0;
}
