#include "store/databasefilecheck.h"

#include <QFile>

namespace {
quint32 bigEndian(const QByteArray &bytes, int offset, int length)
{
    quint32 value = 0;
    for (int i = 0; i < length; ++i)
        value = (value << 8) | static_cast<quint8>(bytes.at(offset + i));
    return value;
}
} // namespace

bool DatabaseFileCheck::looksHealthy(const QString &path, QString &problem)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        problem = QStringLiteral("it cannot be read (%1)").arg(file.errorString());
        return false;
    }
    const qint64 size = file.size();
    if (size == 0)
        return true;
    const QByteArray header = file.read(100);
    static const QByteArray magic("SQLite format 3\0", 16);
    if (header.size() < 100 || !header.startsWith(magic)) {
        problem = QStringLiteral("it is not an SQLite database (it does not start with the SQLite header)");
        return false;
    }
    quint32 pageSize = bigEndian(header, 16, 2);
    if (pageSize == 1)
        pageSize = 65536;
    if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) != 0) {
        problem = QStringLiteral("its header is damaged (page size %1)").arg(pageSize);
        return false;
    }
    if (size % pageSize != 0) {
        problem = QStringLiteral("it is truncated (%1 bytes is not a whole number of %2-byte pages)")
                      .arg(size)
                      .arg(pageSize);
        return false;
    }
    // The in-header page count is only trustworthy when the change counter matches "version-valid-for", and
    // the main file may legitimately lag behind it while a write-ahead log holds pages not yet checkpointed
    // (a crash mid-checkpoint); SQLite recovers that from the WAL, so leave it to quick_check then.
    const bool walPending = QFile(path + QStringLiteral("-wal")).size() > 0;
    const quint32 pageCount = bigEndian(header, 28, 4);
    const bool countValid = bigEndian(header, 24, 4) == bigEndian(header, 92, 4) && pageCount > 0;
    if (countValid && !walPending &&
        static_cast<quint64>(pageCount) * pageSize > static_cast<quint64>(size)) {
        problem = QStringLiteral("it is truncated (%1 bytes, its header says %2 pages of %3 bytes)")
                      .arg(size)
                      .arg(pageCount)
                      .arg(pageSize);
        return false;
    }
    return true;
}

bool DatabaseFileCheck::isWalFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    const QByteArray header = file.read(20);
    return header.size() == 20 && header.at(18) == 2 && header.at(19) == 2;
}
