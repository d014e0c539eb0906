#pragma once

#include "agents/parseresult.h"

#include <QStringList>

// A complete kernel taken from an executor's or fixer's reply: the first closed, Python-tagged (or untagged)
// fenced block that defines a kernel function: an @nki.jit one of any name, or an undecorated
// `kernel` (the runner's rule, KernelFunctions).
struct KernelProposal
{
    QString source;
    int candidates = 1; // how many blocks in the reply defined a kernel
    QStringList notes;  // e.g. "3 blocks define a kernel; the first was taken"
};

namespace KernelExtractor {
ParseResult<KernelProposal> extract(const QString &reply);
bool definesKernel(const QString &code);
} // namespace KernelExtractor
