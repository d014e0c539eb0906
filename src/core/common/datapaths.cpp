#include "common/datapaths.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace {
bool looksLikeDataRoot(const QString &dir)
{
    return !dir.isEmpty() && QFileInfo(QDir(dir).filePath(QStringLiteral("nkibench"))).isDir();
}
} // namespace

QString DataPaths::dataRoot()
{
    const QString fromEnv = qEnvironmentVariable("ACCELOPT_DATA_DIR");
    if (looksLikeDataRoot(fromEnv))
        return QDir(fromEnv).absolutePath();
    if (QCoreApplication::instance()) {
        const QString installed = QDir(QCoreApplication::applicationDirPath())
                                      .filePath(QStringLiteral("../" ACCELOPT_DATA_INSTALL_DIR));
        if (looksLikeDataRoot(installed))
            return QDir(installed).absolutePath();
    }
    return QStringLiteral(ACCELOPT_SOURCE_DIR);
}

QString DataPaths::nkibenchDir()
{
    return QDir(dataRoot()).filePath(QStringLiteral("nkibench"));
}

QString DataPaths::tasksDir()
{
    return QDir(nkibenchDir()).filePath(QStringLiteral("tasks"));
}

QString DataPaths::promptsDir()
{
    return QDir(dataRoot()).filePath(QStringLiteral("prompts"));
}

QString DataPaths::rulesDir()
{
    return QDir(dataRoot()).filePath(QStringLiteral("rules"));
}

QString DataPaths::userDataFile(const QString &name)
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation))
        .filePath(QStringLiteral("AccelOpt/") + name);
}

QString DataPaths::recommendationsFile()
{
    return QDir(rulesDir()).filePath(QStringLiteral("recommendations.json"));
}
