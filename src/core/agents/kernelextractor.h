#pragma once

#include "agents/parseresult.h"

#include <QStringList>

// A complete kernel taken from an executor's or fixer's reply: the first closed, Python-tagged (or untagged)
// fenced block that defines a function named `kernel`.
struct KernelProposal
{
    QString source;
    int candidates = 1; // how many blocks in the reply defined `kernel`
    QStringList notes;  // e.g. "3 blocks define kernel; the first was taken"
};

namespace KernelExtractor {
ParseResult<KernelProposal> extract(const QString &reply);
bool definesKernel(const QString &code);
} // namespace KernelExtractor
