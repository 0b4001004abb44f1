// The rank tables embedded in the library at build time (generated from
// embedded_table.cpp.in, one translation unit per encoding).
#pragma once

#include <span>

namespace modelgw::tokenizer::embedded {

std::span<const unsigned char> o200k_base();
std::span<const unsigned char> cl100k_base();

}  // namespace modelgw::tokenizer::embedded
