#pragma once

#include <QObject>
#include <QString>

class QMainWindow;
class QSystemTrayIcon;

// Tells the user a search ended or failed while they were looking elsewhere: a desktop notification where
// the desktop has a tray, otherwise the window alert (the taskbar entry asks for attention); always a line in
// the status bar.
class SearchNotifier : public QObject
{
    Q_OBJECT
public:
    explicit SearchNotifier(QMainWindow *window);
    void notify(const QString &title, const QString &message, bool problem);
    QString lastMessage() const { return m_last; }
    bool usedTray() const { return m_usedTray; }

private:
    QMainWindow *m_window;
    QSystemTrayIcon *m_tray = nullptr;
    QString m_last;
    bool m_usedTray = false;
};
