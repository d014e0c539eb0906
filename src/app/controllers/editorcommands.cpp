#include "editorcommands.h"

#include "editortabs.h"
#include "findbar.h"
#include "kerneleditor.h"
#include "userprompts.h"

#include <QAction>
#include <QApplication>

EditorCommands::EditorCommands(EditorTabs *editors, UserPrompts *prompts, QWidget *area)
    : QObject(area), m_editors(editors), m_prompts(prompts), m_bar(new FindBar(area))
{
    const auto make = [this, area](const QString &text, const QKeySequence &key, auto slot) {
        auto *action = new QAction(text, this);
        action->setShortcut(key);
        action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        connect(action, &QAction::triggered, this, slot);
        area->addAction(action);
        return action;
    };
    m_find = make(tr("&Find…"), QKeySequence::Find, [this] {
        followCurrentTab();
        m_bar->openFind();
    });
    m_replace = make(tr("R&eplace…"), QKeySequence(Qt::CTRL | Qt::Key_H), [this] {
        followCurrentTab();
        m_bar->openReplace();
    });
    // F3 with the bar closed finds what it last found, as in Kate and Qt Creator.
    m_next = make(tr("Find &Next"), QKeySequence(Qt::Key_F3), [this] {
        followCurrentTab();
        m_bar->findNext();
    });
    m_previous = make(tr("Find Pre&vious"), QKeySequence(Qt::SHIFT | Qt::Key_F3), [this] {
        followCurrentTab();
        m_bar->findPrevious();
    });
    m_goToLine = make(tr("&Go to Line…"), QKeySequence(Qt::CTRL | Qt::Key_G), [this] { goToLine(); });
    connect(editors, &QTabWidget::currentChanged, this, &EditorCommands::followCurrentTab);
}

QList<QAction *> EditorCommands::actions() const
{
    return {m_find, m_replace, m_next, m_previous, nullptr, m_goToLine};
}

void EditorCommands::followCurrentTab()
{
    // A read-only tab (a candidate) can be searched too; a comparison searches the pane that has the focus.
    QsciScintilla *editor = m_editors->currentEditor();
    if (!editor)
        if (auto *focused = qobject_cast<QsciScintilla *>(QApplication::focusWidget());
            focused && m_editors->isAncestorOf(focused))
            editor = focused;
    if (editor != m_bar->editor())
        m_bar->setEditor(editor);
    if (!editor)
        m_bar->hide();
}

void EditorCommands::goToLine()
{
    KernelEditor *editor = m_editors->currentEditor();
    if (!editor)
        return;
    int line = 0, index = 0;
    editor->getCursorPosition(&line, &index);
    const std::optional<int> wanted =
        m_prompts->askNumber(m_editors->window(), tr("Go to Line"), tr("Line (1–%1):").arg(editor->lines()),
                             line + 1, 1, editor->lines());
    if (wanted)
        editor->goToLine(*wanted);
}
