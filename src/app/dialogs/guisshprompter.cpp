#include "guisshprompter.h"

#include <QApplication>
#include <QInputDialog>
#include <QMessageBox>
#include <QThread>

namespace {
// Runs `ask` on the GUI thread and waits for it, from whichever thread the SSH worker calls us on.
template<typename Result, typename Fn> Result onGuiThread(Fn ask)
{
    if (QThread::currentThread() == qApp->thread())
        return ask();
    Result result{};
    QMetaObject::invokeMethod(
        qApp, [&] { result = ask(); }, Qt::BlockingQueuedConnection);
    return result;
}
} // namespace

bool GuiSshPrompter::acceptUnknownHostKey(const QString &host, const QString &fingerprint)
{
    if (SshPrompter::acceptUnknownHostKey(host, fingerprint))
        return true;
    return onGuiThread<bool>([this, host, fingerprint] {
        const auto answer = QMessageBox::question(
            m_parent, QObject::tr("Unknown host key"),
            QObject::tr(
                "The host key of %1 is not known yet.\n\nFingerprint:\n%2\n\nCompare it with the server's "
                "own (ssh-keygen -lf on the host's key). Accept it and remember it?")
                .arg(host, fingerprint),
            QMessageBox::Yes | QMessageBox::No, QMessageBox::No);
        return answer == QMessageBox::Yes;
    });
}

QString GuiSshPrompter::keyPassphrase(const QString &keyFile)
{
    if (const QString given = SshPrompter::keyPassphrase(keyFile); !given.isEmpty())
        return given;
    return onGuiThread<QString>([this, keyFile] {
        return QInputDialog::getText(m_parent, QObject::tr("Key passphrase"),
                                     QObject::tr("Passphrase for %1 (used once, never stored):").arg(keyFile),
                                     QLineEdit::Password);
    });
}
