#pragma once

#include <QTemporaryDir>

// Points QSettings (INI format, user scope) and QStandardPaths at a private temporary folder for the life of
// the object, so no test ever reads or writes the user's real settings.
class IsolatedSettings
{
public:
    explicit IsolatedSettings(const QString &applicationName = QStringLiteral("AccelOpt Workbench Test"));
    QString path() const { return m_dir.path(); }

private:
    QTemporaryDir m_dir;
};
