// chipkg: the command-line entry point. Subcommands are dispatched here.
#include <cstdio>

int main(int, char**) {
  std::fprintf(stderr, "chipkg: not built yet\n");
  return 2;
}
