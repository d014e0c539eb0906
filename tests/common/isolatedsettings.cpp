#include "isolatedsettings.h"

#include <QCoreApplication>
#include <QSettings>
#include <QStandardPaths>

IsolatedSettings::IsolatedSettings(const QString &applicationName)
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("AccelOptTest"));
    QCoreApplication::setApplicationName(applicationName);
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::SystemScope,
                       m_dir.path() + QStringLiteral("/system"));
}
