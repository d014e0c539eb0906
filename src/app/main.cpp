#include "applogging.h"
#include "common/buildinfo.h"
#include "common/loghub.h"
#include "mainwindow.h"
#include "theme.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QSettings>

int main(int argc, char *argv[])
{
    LogHub::install();
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("AccelOpt Workbench"));
    QApplication::setOrganizationName(QStringLiteral("AccelOpt"));
    QApplication::setApplicationVersion(BuildInfo::appVersion());
    QApplication::setDesktopFileName(QStringLiteral("accelopt-workbench"));
    // INI everywhere: readable, diffable, and the same format on every platform.
    QSettings::setDefaultFormat(QSettings::IniFormat);

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("AccelOpt Workbench: optimize AWS Trainium NKI kernels."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("files"), QStringLiteral("Kernel files to open."),
                                 QStringLiteral("[files...]"));
    const QCommandLineOption sessionOption(
        QStringLiteral("session"),
        QStringLiteral(
            "Open a session of the workspace in the Search dock (its id, or the first characters)."),
        QStringLiteral("ID"));
    parser.addOption(sessionOption);
    parser.process(app);

    Theme::setCurrent(Theme::loadSaved());
    MainWindow window;
    window.show();
    for (const QString &path : parser.positionalArguments())
        window.openFile(path);
    if (parser.isSet(sessionOption))
        window.openSession(parser.value(sessionOption));
    qCInfo(lcApp) << "AccelOpt Workbench" << BuildInfo::appVersion() << "started";
    return app.exec();
}
