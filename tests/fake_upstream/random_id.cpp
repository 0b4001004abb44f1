#include "random_id.h"

#include <functional>
#include <random>
#include <thread>

namespace fake_upstream {

void appendRandomAlnum(std::string& out, int n) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  thread_local std::mt19937_64 engine{std::random_device{}() ^
                                      std::hash<std::thread::id>{}(std::this_thread::get_id())};
  for (int i = 0; i < n; ++i) out.push_back(kAlphabet[engine() % (sizeof(kAlphabet) - 1)]);
}

}  // namespace fake_upstream
