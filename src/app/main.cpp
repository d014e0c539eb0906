#include "applogging.h"
#include "common/buildinfo.h"
#include "common/loghub.h"
#include "launchoptions.h"
#include "mainwindow.h"
#include "theme.h"

#include <QApplication>
#include <QSettings>

#include <cstdio>

int main(int argc, char *argv[])
{
    LogHub::install();
    // The command line first, so --help, --version and bad usage answer without a display.
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);
    LaunchOptions options;
    if (!options.parse(arguments)) {
        fprintf(stderr, "accelopt-workbench: %s\n", qPrintable(options.error()));
        return 2;
    }
    if (options.wantsHelp() || options.wantsVersion()) {
        fprintf(stdout, "%s\n",
                qPrintable(options.wantsHelp() ? options.helpText()
                                               : QStringLiteral("accelopt-workbench ") + BuildInfo::appVersion()));
        return 0;
    }

    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("AccelOpt Workbench"));
    QApplication::setOrganizationName(QStringLiteral("AccelOpt"));
    QApplication::setApplicationVersion(BuildInfo::appVersion());
    QApplication::setDesktopFileName(QStringLiteral(ACCELOPT_APP_ID)); // names the installed .desktop
    // INI everywhere: readable, diffable, and the same format on every platform.
    QSettings::setDefaultFormat(QSettings::IniFormat);

    Theme::setCurrent(Theme::loadSaved());
    MainWindow window;
    window.show();
    window.restoreOpenTabs(); // before the command line's files, so those are the current tab
    options.apply(window);
    qCInfo(lcApp) << "AccelOpt Workbench" << BuildInfo::appVersion() << "started";
    return app.exec();
}
