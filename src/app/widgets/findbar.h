#pragma once

#include <QPointer>
#include <QWidget>

class QLabel;
class QLineEdit;
class QPushButton;
class QsciScintilla;
class QToolButton;

// Find and Replace under the editors, as Qt Creator and Kate have it: a bar, not a dialog, so the hits stay
// in sight while the user types. Ctrl+F opens it for finding, Ctrl+H with the replace row; F3 and Shift+F3
// walk the hits (wrapping at the ends), Enter finds the next, Escape closes it and gives the editor back its
// focus. It works on whichever editor it is given (the current tab's), never on a read-only one for replace.
class FindBar : public QWidget
{
    Q_OBJECT
public:
    explicit FindBar(QWidget *parent = nullptr);

    void setEditor(QsciScintilla *editor);
    QsciScintilla *editor() const { return m_editor; }

    void openFind();    // shows the bar with the editor's selection (one line) as the text to find
    void openReplace(); // the same with the replace row
    bool findNext();    // false when there is no hit
    bool findPrevious();
    bool replaceCurrent(); // replaces the selected hit and moves to the next; false when none was selected
    int replaceAll();      // in the whole document, as one undo step; the number replaced

    QLineEdit *findEdit() const { return m_find; }
    QLineEdit *replaceEdit() const { return m_replace; }
    QToolButton *caseButton() const { return m_case; }
    QToolButton *wordButton() const { return m_word; }
    QToolButton *regexButton() const { return m_regex; }
    QLabel *countLabel() const { return m_count; }
    bool replacing() const;
    int matchCount() const; // hits of the text in the editor's document

protected:
    void keyPressEvent(QKeyEvent *event) override;

private:
    void open(bool replace);
    bool find(bool forward, bool fromSelectionStart);
    void updateCount();
    bool selectionIsHit() const;

    QPointer<QsciScintilla> m_editor;
    QLineEdit *m_find;
    QLineEdit *m_replace;
    QToolButton *m_case, *m_word, *m_regex;
    QLabel *m_count;
    QWidget *m_replaceRow;
    QPushButton *m_replaceOne, *m_replaceEvery;
};
