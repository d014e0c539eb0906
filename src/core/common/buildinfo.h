#pragma once

#include <QString>

// Versions of the tool and the libraries it runs on, for --version, the About dialog and bug reports.
class BuildInfo
{
public:
    static QString appVersion();
    static QString qtRuntimeVersion();
    static QString qtBuildVersion();
    static QString libsshVersion();
    // One line per component, "name version", core components only (the app adds its widget libraries).
    static QStringList coreComponents();
};
