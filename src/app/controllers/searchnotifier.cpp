#include "searchnotifier.h"

#include <QApplication>
#include <QMainWindow>
#include <QStatusBar>
#include <QSystemTrayIcon>

SearchNotifier::SearchNotifier(QMainWindow *window) : QObject(window), m_window(window) {}

void SearchNotifier::notify(const QString &title, const QString &message, bool problem)
{
    m_last = title + QStringLiteral(": ") + message;
    m_window->statusBar()->showMessage(m_last, 30000);
    m_usedTray = QSystemTrayIcon::isSystemTrayAvailable() && QSystemTrayIcon::supportsMessages();
    if (m_usedTray) {
        if (!m_tray) {
            m_tray = new QSystemTrayIcon(m_window->windowIcon(), this);
            m_tray->setToolTip(QStringLiteral("AccelOpt Workbench"));
        }
        m_tray->show();
        m_tray->showMessage(title, message, problem ? QSystemTrayIcon::Warning : QSystemTrayIcon::Information,
                            10000);
    }
    if (!m_window->isActiveWindow())
        QApplication::alert(m_window);
}
