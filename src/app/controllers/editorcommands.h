#pragma once

#include <QObject>

class EditorTabs;
class FindBar;
class QAction;
class QWidget;
class UserPrompts;

// What makes the kernel tabs edit like an editor beyond typing: Find (Ctrl+F), Replace (Ctrl+H), Find
// Next/Previous (F3, Shift+F3) through the find bar, and Go to Line (Ctrl+G). The keys work where the editors
// are (`area`: the tabs and the bar), so the Memory dock keeps its own Ctrl+F for its search field.
class EditorCommands : public QObject
{
    Q_OBJECT
public:
    EditorCommands(EditorTabs *editors, UserPrompts *prompts, QWidget *area);

    FindBar *findBar() const { return m_bar; }
    QList<QAction *> actions() const; // in menu order, a null for a separator
    QAction *findAction() const { return m_find; }
    QAction *replaceAction() const { return m_replace; }
    QAction *findNextAction() const { return m_next; }
    QAction *findPreviousAction() const { return m_previous; }
    QAction *goToLineAction() const { return m_goToLine; }

    void goToLine();

private:
    void followCurrentTab();

    EditorTabs *m_editors;
    UserPrompts *m_prompts;
    FindBar *m_bar;
    QAction *m_find, *m_replace, *m_next, *m_previous, *m_goToLine;
};
