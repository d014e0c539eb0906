#include "common/buildinfo.h"

#include <QStringList>
#include <QtGlobal>

#include <libssh/libssh.h>

QString BuildInfo::appVersion()
{
    return QStringLiteral(ACCELOPT_VERSION);
}

QString BuildInfo::qtRuntimeVersion()
{
    return QString::fromLatin1(qVersion());
}

QString BuildInfo::qtBuildVersion()
{
    return QStringLiteral(QT_VERSION_STR);
}

QString BuildInfo::libsshVersion()
{
    // ssh_version(0) returns the runtime library's version string, which is what matters when a user files a
    // bug.
    const char *v = ssh_version(0);
    return v ? QString::fromLatin1(v) : QStringLiteral("unknown");
}

QStringList BuildInfo::coreComponents()
{
    return {QStringLiteral("AccelOpt Workbench %1").arg(appVersion()),
            QStringLiteral("Qt %1 (built with %2)").arg(qtRuntimeVersion(), qtBuildVersion()),
            QStringLiteral("libssh %1").arg(libsshVersion())};
}
