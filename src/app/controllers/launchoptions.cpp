#include "launchoptions.h"

#include "mainwindow.h"

#include <QCommandLineParser>

bool LaunchOptions::parse(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("AccelOpt Workbench: optimize AWS Trainium NKI kernels."));
    const QCommandLineOption help = parser.addHelpOption();
    const QCommandLineOption version = parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("files"), QStringLiteral("Kernel files to open."),
                                 QStringLiteral("[files...]"));
    const QCommandLineOption session(
        QStringLiteral("session"),
        QStringLiteral("Open a session of the workspace in the Search dock (its id, or the first characters)."),
        QStringLiteral("ID"));
    const QCommandLineOption diff(QStringLiteral("diff"),
                                  QStringLiteral("Compare two kernel files side by side: --diff A B (A the slower "
                                                 "or older, B the faster or newer)."));
    parser.addOption(session);
    parser.addOption(diff);
    // Parsed before the application exists (--help needs no display), so the program name is filled in here.
    m_helpText = parser.helpText().replace(QStringLiteral("<executable_name>"), QStringLiteral("accelopt-workbench"));
    if (!parser.parse(arguments)) {
        m_error = parser.errorText();
        return false;
    }
    // --help-all too: without a QApplication yet there are no Qt options to add, and a help request must not
    // open a window (or fail for want of a display).
    m_help = parser.isSet(help) || parser.isSet(QStringLiteral("help-all"));
    m_version = parser.isSet(version);
    m_files = parser.positionalArguments();
    m_session = parser.value(session);
    m_diff = parser.isSet(diff);
    if (m_diff && m_files.size() != 2) {
        m_error = QStringLiteral("--diff takes two kernel files, e.g. --diff slow.py fast.py");
        return false;
    }
    return true;
}

void LaunchOptions::apply(MainWindow &window) const
{
    if (m_diff)
        window.compareFiles(m_files.at(0), m_files.at(1));
    else
        for (const QString &path : m_files)
            window.openFile(path);
    if (!m_session.isEmpty())
        window.openSession(m_session);
}
