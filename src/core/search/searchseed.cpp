#include "search/searchseed.h"

#include <QCryptographicHash>

qint64 SearchSeed::from(const QStringList &parts)
{
    const QByteArray digest = QCryptographicHash::hash(parts.join(u'/').toUtf8(), QCryptographicHash::Sha256);
    quint32 seed = 0;
    for (int i = 0; i < 4; ++i)
        seed = (seed << 8) | quint8(digest.at(i));
    return qint64(seed & 0x7fffffffu);
}
