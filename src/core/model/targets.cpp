#include "model/targets.h"

const QStringList &Targets::all()
{
    static const QStringList targets{QStringLiteral("trn1"), QStringLiteral("trn2"), QStringLiteral("trn3")};
    return targets;
}

QString Targets::listed()
{
    QStringList names = all();
    const QString last = names.takeLast();
    return names.join(QStringLiteral(", ")) + QStringLiteral(" or ") + last;
}
