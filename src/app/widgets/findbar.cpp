#include "findbar.h"

#include <QGridLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QToolButton>

#include <Qsci/qsciscintilla.h>

namespace {
// Counting every hit of a long pattern in a huge file would stall typing; past this many the label says so.
constexpr int maxCounted = 9999;
} // namespace

FindBar::FindBar(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("findBar"));
    auto *grid = new QGridLayout(this);
    grid->setContentsMargins(4, 2, 4, 2);
    grid->setVerticalSpacing(2);

    m_find = new QLineEdit(this);
    m_find->setObjectName(QStringLiteral("findText"));
    m_find->setPlaceholderText(tr("Find"));
    m_find->setClearButtonEnabled(true);
    auto *previous = new QPushButton(tr("Previous"), this);
    previous->setToolTip(tr("Find the previous hit (Shift+F3)"));
    auto *next = new QPushButton(tr("Next"), this);
    next->setToolTip(tr("Find the next hit (F3, or Enter in the field)"));
    // Small toggles rather than labelled boxes, so the bar fits beside docks on a 1280-pixel screen.
    const auto toggle = [this](const QString &text, const QString &tip) {
        auto *button = new QToolButton(this);
        button->setText(text);
        button->setToolTip(tip);
        button->setCheckable(true);
        button->setAutoRaise(true);
        return button;
    };
    m_case = toggle(QStringLiteral("Aa"), tr("Match case"));
    m_word = toggle(QStringLiteral("W"), tr("Whole words only"));
    m_regex = toggle(QStringLiteral(".*"), tr("Regular expression (ECMAScript)"));
    m_count = new QLabel(this);
    m_count->setObjectName(QStringLiteral("findCount"));
    m_count->setMinimumWidth(fontMetrics().horizontalAdvance(QStringLiteral("9999 hits")));
    auto *close = new QToolButton(this);
    close->setText(QStringLiteral("✕"));
    close->setAutoRaise(true);
    close->setToolTip(tr("Close (Escape)"));

    m_replaceRow = new QWidget(this);
    auto *replaceLayout = new QHBoxLayout(m_replaceRow);
    replaceLayout->setContentsMargins(0, 0, 0, 0);
    m_replace = new QLineEdit(m_replaceRow);
    m_replace->setObjectName(QStringLiteral("replaceText"));
    m_replace->setPlaceholderText(tr("Replace with"));
    m_replaceOne = new QPushButton(tr("Replace"), m_replaceRow);
    m_replaceOne->setToolTip(tr("Replace the selected hit and find the next"));
    m_replaceEvery = new QPushButton(tr("Replace All"), m_replaceRow);
    replaceLayout->addWidget(m_replace, 1);
    replaceLayout->addWidget(m_replaceOne);
    replaceLayout->addWidget(m_replaceEvery);

    grid->addWidget(m_find, 0, 0);
    grid->addWidget(previous, 0, 1);
    grid->addWidget(next, 0, 2);
    grid->addWidget(m_case, 0, 3);
    grid->addWidget(m_word, 0, 4);
    grid->addWidget(m_regex, 0, 5);
    grid->addWidget(m_count, 0, 6);
    grid->addWidget(close, 0, 7);
    grid->addWidget(m_replaceRow, 1, 0, 1, 3);
    grid->setColumnStretch(0, 1);
    // The bar must never widen the window: the field shrinks first, then the window's own minimum applies.
    m_find->setMinimumWidth(120);

    connect(m_find, &QLineEdit::textEdited, this, [this] {
        updateCount();
        if (!m_find->text().isEmpty())
            find(true, true); // as the user types, the hit grows in place instead of jumping ahead
    });
    connect(m_find, &QLineEdit::returnPressed, this, &FindBar::findNext);
    connect(m_replace, &QLineEdit::returnPressed, this, &FindBar::replaceCurrent);
    connect(next, &QPushButton::clicked, this, &FindBar::findNext);
    connect(previous, &QPushButton::clicked, this, &FindBar::findPrevious);
    connect(m_replaceOne, &QPushButton::clicked, this, &FindBar::replaceCurrent);
    connect(m_replaceEvery, &QPushButton::clicked, this, &FindBar::replaceAll);
    for (QToolButton *box : {m_case, m_word, m_regex})
        connect(box, &QToolButton::toggled, this, &FindBar::updateCount);
    connect(close, &QToolButton::clicked, this, [this] {
        hide();
        if (m_editor)
            m_editor->setFocus();
    });
    hide();
}

void FindBar::setEditor(QsciScintilla *editor)
{
    m_editor = editor;
    const bool writable = editor && !editor->isReadOnly();
    m_replaceOne->setEnabled(writable);
    m_replaceEvery->setEnabled(writable);
    if (isVisible())
        updateCount();
}

bool FindBar::replacing() const
{
    return isVisible() && m_replaceRow->isVisible();
}

void FindBar::openFind()
{
    open(false);
}

void FindBar::openReplace()
{
    open(true);
}

void FindBar::open(bool replace)
{
    if (m_editor && m_editor->hasSelectedText()) {
        const QString selected = m_editor->selectedText();
        if (!selected.contains(u'\n') && !selected.contains(u'\r'))
            m_find->setText(m_regex->isChecked() ? QRegularExpression::escape(selected) : selected);
    }
    m_replaceRow->setVisible(replace);
    show();
    m_find->setFocus();
    m_find->selectAll();
    updateCount();
}

bool FindBar::findNext()
{
    return find(true, false);
}

bool FindBar::findPrevious()
{
    return find(false, false);
}

bool FindBar::find(bool forward, bool fromSelectionStart)
{
    if (!m_editor || m_find->text().isEmpty())
        return false;
    int lineFrom = -1, indexFrom = -1, lineTo = -1, indexTo = -1;
    m_editor->getSelection(&lineFrom, &indexFrom, &lineTo, &indexTo);
    int line = 0, index = 0;
    if (lineFrom < 0)
        m_editor->getCursorPosition(&line, &index);
    else if (forward && !fromSelectionStart) {
        line = lineTo;
        index = indexTo;
    } else {
        line = lineFrom;
        index = indexFrom;
    }
    const bool found =
        m_editor->findFirst(m_find->text(), m_regex->isChecked(), m_case->isChecked(), m_word->isChecked(),
                            true, forward, line, index, true, false, m_regex->isChecked());
    // A miss is said in the field's colour as well as in words, as editors do.
    m_find->setStyleSheet(found || m_find->text().isEmpty()
                              ? QString()
                              : QStringLiteral("background: #f4c7c3; color: #1f1f1f"));
    return found;
}

bool FindBar::selectionIsHit() const
{
    if (!m_editor || !m_editor->hasSelectedText() || m_find->text().isEmpty())
        return false;
    const QString selected = m_editor->selectedText();
    if (m_regex->isChecked()) {
        QRegularExpression re(QRegularExpression::anchoredPattern(m_find->text()),
                              m_case->isChecked() ? QRegularExpression::NoPatternOption
                                                  : QRegularExpression::CaseInsensitiveOption);
        return re.isValid() && re.match(selected).hasMatch();
    }
    return selected.compare(m_find->text(), m_case->isChecked() ? Qt::CaseSensitive : Qt::CaseInsensitive) ==
           0;
}

bool FindBar::replaceCurrent()
{
    if (!m_editor || m_editor->isReadOnly())
        return false;
    if (!selectionIsHit()) {
        findNext(); // the first press shows what would be replaced
        return false;
    }
    if (m_regex->isChecked()) {
        // Capture groups (\1) work as in the document's own search: QScintilla's replace after a find.
        int line = 0, index = 0, lineTo = 0, indexTo = 0;
        m_editor->getSelection(&line, &index, &lineTo, &indexTo);
        m_editor->findFirst(m_find->text(), true, m_case->isChecked(), m_word->isChecked(), false, true, line,
                            index, true, false, true);
        m_editor->replace(m_replace->text());
    } else {
        m_editor->replaceSelectedText(m_replace->text());
    }
    updateCount();
    findNext();
    return true;
}

int FindBar::replaceAll()
{
    if (!m_editor || m_editor->isReadOnly() || m_find->text().isEmpty())
        return 0;
    int line = 0, index = 0;
    m_editor->getCursorPosition(&line, &index);
    int replaced = 0;
    m_editor->beginUndoAction();
    bool found =
        m_editor->findFirst(m_find->text(), m_regex->isChecked(), m_case->isChecked(), m_word->isChecked(),
                            false, true, 0, 0, false, false, m_regex->isChecked());
    while (found) {
        m_editor->replace(m_replace->text());
        ++replaced;
        found = m_editor->findNext();
    }
    m_editor->endUndoAction();
    m_editor->setCursorPosition(std::min(line, m_editor->lines() - 1), index);
    m_count->setText(replaced == 1 ? tr("1 replaced") : tr("%1 replaced").arg(replaced));
    return replaced;
}

int FindBar::matchCount() const
{
    if (!m_editor || m_find->text().isEmpty())
        return 0;
    QString pattern = m_regex->isChecked() ? m_find->text() : QRegularExpression::escape(m_find->text());
    if (m_word->isChecked())
        pattern = QStringLiteral("\\b(?:%1)\\b").arg(pattern);
    const QRegularExpression re(pattern, m_case->isChecked() ? QRegularExpression::NoPatternOption
                                                             : QRegularExpression::CaseInsensitiveOption);
    if (!re.isValid())
        return 0;
    int count = 0;
    const QString text = m_editor->text();
    for (auto it = re.globalMatch(text); it.hasNext() && count <= maxCounted;) {
        const QRegularExpressionMatch m = it.next();
        if (m.capturedLength() > 0)
            ++count;
    }
    return count;
}

void FindBar::updateCount()
{
    if (m_find->text().isEmpty()) {
        m_count->clear();
        m_find->setStyleSheet(QString());
        return;
    }
    const int n = matchCount();
    m_count->setText(n == 0           ? tr("no hits")
                     : n == 1         ? tr("1 hit")
                     : n > maxCounted ? tr("%1+ hits").arg(maxCounted)
                                      : tr("%1 hits").arg(n));
}

void FindBar::keyPressEvent(QKeyEvent *event)
{
    if (event->key() == Qt::Key_Escape) {
        hide();
        if (m_editor)
            m_editor->setFocus();
        return;
    }
    QWidget::keyPressEvent(event);
}
