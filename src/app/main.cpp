#include "applogging.h"
#include "common/buildinfo.h"
#include "common/loghub.h"
#include "mainwindow.h"
#include "theme.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QSettings>

#include <cstdio>

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
    const QCommandLineOption diffOption(
        QStringLiteral("diff"), QStringLiteral("Compare two kernel files side by side: --diff A B (A the slower "
                                               "or older, B the faster or newer)."));
    parser.addOption(diffOption);
    parser.process(app);
    if (parser.isSet(diffOption) && parser.positionalArguments().size() != 2) {
        fprintf(stderr, "accelopt-workbench: --diff takes two kernel files, e.g. --diff slow.py fast.py\n");
        return 2;
    }

    Theme::setCurrent(Theme::loadSaved());
    MainWindow window;
    window.show();
    if (parser.isSet(diffOption))
        window.compareFiles(parser.positionalArguments().at(0), parser.positionalArguments().at(1));
    else
        for (const QString &path : parser.positionalArguments())
            window.openFile(path);
    if (parser.isSet(sessionOption))
        window.openSession(parser.value(sessionOption));
    qCInfo(lcApp) << "AccelOpt Workbench" << BuildInfo::appVersion() << "started";
    return app.exec();
}
