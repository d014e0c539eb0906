#include "model/taskcheckstamp.h"

#include "model/tasksources.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

namespace {
constexpr qint64 maxStampedBytes = 64 * 1024 * 1024;

} // namespace

QString TaskCheckStamp::fingerprint(const QString &folder)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    for (const QString &name :
         {QStringLiteral("task.json"), TaskSources::referenceFile(folder), QStringLiteral("baseline.py")}) {
        QFile f(QDir(folder).filePath(name));
        if (f.size() > maxStampedBytes || !f.open(QIODevice::ReadOnly))
            return {};
        hash.addData(name.toUtf8() + '\0');
        hash.addData(f.readAll());
        hash.addData(QByteArrayView("\0", 1));
    }
    return QString::fromLatin1(hash.result().toHex());
}

bool TaskCheckStamp::needsCheck(const QJsonObject &ref, const QString &shippedDir)
{
    const QString dir = ref.value(QStringLiteral("dir")).toString();
    if (dir.isEmpty() || ref.contains(QStringLiteral("dataset")))
        return false; // shipped tasks are checked by the test suite; a dataset has no baseline of ours
    const QString shipped = QFileInfo(shippedDir).canonicalFilePath();
    if (!shipped.isEmpty() && QFileInfo(dir).canonicalFilePath().startsWith(shipped + u'/'))
        return false;
    return !isCurrent(dir);
}

bool TaskCheckStamp::isCurrent(const QString &folder)
{
    QFile f(QDir(folder).filePath(fileName()));
    if (f.size() > 64 * 1024 || !f.open(QIODevice::ReadOnly))
        return false;
    const QString stamped =
        QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("sha256")).toString();
    const QString now = fingerprint(folder);
    return !now.isEmpty() && stamped == now;
}

bool TaskCheckStamp::write(const QString &folder, QString &error)
{
    const QString sum = fingerprint(folder);
    if (sum.isEmpty()) {
        error = QStringLiteral("cannot read the task's files in %1").arg(folder);
        return false;
    }
    const QJsonObject o{
        {QStringLiteral("sha256"), sum},
        {QStringLiteral("checked"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate)},
        {QStringLiteral("what"), QStringLiteral("task.json, the reference and baseline.py passed "
                                                "accelopt task check as they are")}};
    QSaveFile out(QDir(folder).filePath(fileName()));
    if (!out.open(QIODevice::WriteOnly) || out.write(QJsonDocument(o).toJson(QJsonDocument::Indented)) < 0 ||
        !out.commit()) {
        error = QStringLiteral("cannot write %1: %2").arg(out.fileName(), out.errorString());
        return false;
    }
    return true;
}
