#pragma once

#include <QString>

// How an amount of model spending reads, written once for the Search dock and the Sessions list so the two
// never disagree. A call without a price (a model missing from the price table, a reply without usage) is of
// unknown cost, not free: "$0.00" for it would read as a budget that can never run out.
namespace CostText {

// "$0.0123", "$0.0123 + 2 unpriced calls", or "unknown" when no call had a price.
QString money(double usd, int calls, int unpricedCalls, int decimals = 4);

} // namespace CostText
