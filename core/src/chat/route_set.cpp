#include "chat/route_set.h"

namespace modelgw::chat {

void RouteSet::retire() {
  for (auto& [name, pool] : pools) pool->retire_idle();
}

}  // namespace modelgw::chat
