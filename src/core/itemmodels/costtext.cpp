#include "itemmodels/costtext.h"

#include <QCoreApplication>

QString CostText::money(double usd, int calls, int unpricedCalls, int decimals)
{
    if (calls > 0 && unpricedCalls >= calls)
        return QCoreApplication::translate("CostText", "unknown");
    const QString known = QStringLiteral("$%1").arg(usd, 0, 'f', decimals);
    if (unpricedCalls <= 0)
        return known;
    return unpricedCalls == 1 ? QCoreApplication::translate("CostText", "%1 + 1 unpriced call").arg(known)
                              : QCoreApplication::translate("CostText", "%1 + %2 unpriced calls")
                                    .arg(known)
                                    .arg(unpricedCalls);
}
