#pragma once

#include <QString>

// Which NKI a kernel is written in, by its imports, as nkisim and the runner decide (nkisim/current/
// generation.py): `neuronxcc.nki` is the classic API (Neuron SDK up to 2.29; NKIBench and the AccelOpt paper),
// the `nki` namespace is the current one (SDK 2.27 on; the only one from 2.30). A kernel with neither is
// classic, as the runner gives it the classic import header.
class NkiGeneration
{
public:
    enum class Kind
    {
        Classic,
        Current
    };
    static Kind of(const QString &source);
    static QString name(Kind kind) { return kind == Kind::Current ? QStringLiteral("current") : QStringLiteral("classic"); }
};
