//===- Passes.h - MQSS-Selector's passes (declared in Passes.td) ----------===//
#ifndef MQSS_PASSES_PASSES_H
#define MQSS_PASSES_PASSES_H

#include "mlir/Pass/Pass.h"

#include <memory>
#include <string>

namespace mqss {

#define GEN_PASS_DECL
#include "mqss/Passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mqss/Passes/Passes.h.inc"

} // namespace mqss

#endif // MQSS_PASSES_PASSES_H
