#pragma once

#include <QUrl>

class QMainWindow;
class QWidget;

// Help > User Guide and Help > Keyboard Shortcuts. The shortcuts are read from the window's own actions
// (every menu, and the keys that live in views, such as F7 in Compare), so the list cannot drift from the
// keys.
class HelpTopics
{
public:
    // The README's user guide: the installed copy, else the source tree's.
    static QUrl userGuideUrl();
    // "Menu › Action" and its keys, one pair per action that has a shortcut, in menu order.
    static QList<QPair<QString, QString>> shortcuts(const QMainWindow *window);
    static void showShortcuts(QMainWindow *window);
};
