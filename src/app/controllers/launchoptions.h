#pragma once

#include <QString>
#include <QStringList>

class MainWindow;

// The workbench's command line: kernel files to open, `--session ID` to show a session, `--diff A B` to compare
// two files (as meld and kdiff3 take them). Parsed apart from main() so tests run the same path.
class LaunchOptions
{
public:
    // `arguments` as QCoreApplication::arguments() gives them (the program first). false on bad usage, with
    // the message in error(); --help and --version are handled by the caller through helpText()/isHelp().
    bool parse(const QStringList &arguments);
    void apply(MainWindow &window) const;

    QString error() const { return m_error; }
    bool wantsHelp() const { return m_help; }
    bool wantsVersion() const { return m_version; }
    QString helpText() const { return m_helpText; }
    QStringList files() const { return m_files; }
    QString session() const { return m_session; }
    bool isDiff() const { return m_diff; }

private:
    QString m_error;
    QString m_helpText;
    QStringList m_files;
    QString m_session;
    bool m_diff = false;
    bool m_help = false;
    bool m_version = false;
};
