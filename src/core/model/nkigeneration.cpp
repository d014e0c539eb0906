#include "model/nkigeneration.h"

#include <QRegularExpression>

NkiGeneration::Kind NkiGeneration::of(const QString &source)
{
    // `import nki`, `import nki.language as nl`, `from nki import ...`, `from nki.isa import ...`; not
    // `neuronxcc.nki`, which the classic pattern takes first.
    static const QRegularExpression classic(QStringLiteral("^\\s*(from|import)\\s+neuronxcc\\.nki\\b"),
                                            QRegularExpression::MultilineOption);
    static const QRegularExpression current(QStringLiteral("^\\s*(from\\s+nki(\\.\\w+)*\\s+import|import\\s+nki\\b)"),
                                            QRegularExpression::MultilineOption);
    if (classic.match(source).hasMatch())
        return Kind::Classic;
    return current.match(source).hasMatch() ? Kind::Current : Kind::Classic;
}
