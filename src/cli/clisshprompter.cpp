#include "clisshprompter.h"

#include <QTextStream>

#include <cstdio>
#include <termios.h>
#include <unistd.h>

bool CliSshPrompter::acceptUnknownHostKey(const QString &host, const QString &fingerprint)
{
    if (SshPrompter::acceptUnknownHostKey(host, fingerprint))
        return true;
    if (!::isatty(STDIN_FILENO))
        return false;
    QTextStream err(stderr);
    err << "The host key of " << host << " is not known.\n  Fingerprint: " << fingerprint
        << "\nCompare it with the server's (ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub on the host).\n"
        << "Accept and remember it? [y/N] ";
    err.flush();
    QTextStream in(stdin);
    const QString answer = in.readLine().trimmed().toLower();
    return answer == QStringLiteral("y") || answer == QStringLiteral("yes");
}

QString CliSshPrompter::keyPassphrase(const QString &keyFile)
{
    if (const QString given = SshPrompter::keyPassphrase(keyFile); !given.isEmpty())
        return given;
    if (!::isatty(STDIN_FILENO))
        return {};
    QTextStream err(stderr);
    err << "Passphrase for " << keyFile << ": ";
    err.flush();
    termios saved{};
    ::tcgetattr(STDIN_FILENO, &saved);
    termios silent = saved;
    silent.c_lflag &= ~tcflag_t(ECHO);
    ::tcsetattr(STDIN_FILENO, TCSANOW, &silent);
    QTextStream in(stdin);
    const QString passphrase = in.readLine();
    ::tcsetattr(STDIN_FILENO, TCSANOW, &saved);
    err << "\n";
    return passphrase;
}
