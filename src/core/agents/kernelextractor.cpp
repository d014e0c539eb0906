#include "agents/kernelextractor.h"

#include "agents/fencedblocks.h"
#include "model/kernelfunctions.h"


bool KernelExtractor::definesKernel(const QString &code)
{
    // The runner's rule (KernelFunctions): an @nki.jit function of any name, or an undecorated `kernel`.
    for (const KernelFunctions::Function &f : KernelFunctions::all(code))
        if (f.jit || f.name == QStringLiteral("kernel") || f.name == QStringLiteral("optimized_kernel"))
            return true;
    return false;
}

ParseResult<KernelProposal> KernelExtractor::extract(const QString &reply)
{
    using Kind = AgentParseError::Kind;
    if (reply.trimmed().isEmpty())
        return AgentParseError{Kind::Empty, QStringLiteral("the reply is empty")};
    const QList<FencedBlock> blocks = FencedBlocks::scan(reply);
    if (blocks.isEmpty())
        return AgentParseError{Kind::NoCode,
                               QStringLiteral("the reply has no fenced code block; the kernel must "
                                              "come in a ```python block")};
    QList<FencedBlock> candidates;
    for (const FencedBlock &b : blocks)
        if (b.closed && FencedBlocks::isPython(b) && definesKernel(b.code))
            candidates.append(b);
    if (candidates.isEmpty()) {
        const FencedBlock &last = blocks.last();
        if (!last.closed)
            return AgentParseError{
                Kind::Truncated,
                QStringLiteral("the reply ends inside the code block opened at line %1: it was "
                               "cut off (raise max_tokens, or the model ran out of room)")
                    .arg(last.line)};
        return AgentParseError{Kind::NoKernel,
                               QStringLiteral("none of the %1 code block(s) in the reply defines a top-level "
                                              "@nki.jit function (or a function named kernel)")
                                   .arg(blocks.size())};
    }
    KernelProposal p;
    p.source = candidates.first().code.trimmed() + u'\n';
    p.candidates = int(candidates.size());
    if (candidates.size() > 1)
        p.notes << QStringLiteral("%1 code blocks define a kernel; the first (line %2) was taken")
                       .arg(candidates.size())
                       .arg(candidates.first().line);
    return p;
}
