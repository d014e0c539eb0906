#pragma once

#include <QStringList>

// The seeds a search hands to model servers and to the runner's re-measurement: 31 bits of a hash of the
// parts that place the draw in the search by content, which every server takes as a seed.
namespace SearchSeed {
qint64 from(const QStringList &parts);
} // namespace SearchSeed
