#pragma once

#include "memory/experiencerecord.h"

#include <QWidget>

#include <optional>

class QLabel;
class QPushButton;
class QTextBrowser;

// Beside the Compare view's panes: the lesson the memory keeps for the pair (title, lesson, the before and
// after snippets, its measured speedup), or "no lesson yet" with a Summarize button that asks the summarizer
// model for one. The button is offered only when both kernels are measured; otherwise it says what is missing.
class LessonPanel : public QWidget
{
    Q_OBJECT
public:
    explicit LessonPanel(QWidget *parent = nullptr);

    void showLooking();
    void showLesson(const ExperienceRecord &record, bool stored);
    // `whyNot` empty: Summarize is offered; otherwise it is disabled and this says why.
    void showNoLesson(const QString &whyNot);
    void showSummarizing();
    void offerSummarize(); // the Summarize button, enabled, under whatever is shown
    void showError(const QString &error, const QString &whyNot);

    bool showsLesson() const; // a stored lesson or a draft, rather than a state or an error
    // The memory item shown, when a stored lesson is (it is read again when the memory changes); else 0.
    qint64 storedId() const { return m_storedId; }
    QPushButton *summarizeButton() const { return m_summarize; }
    QTextBrowser *text() const { return m_text; }
    QLabel *state() const { return m_state; }

Q_SIGNALS:
    void summarizeRequested();

private:
    QLabel *m_state;
    QTextBrowser *m_text;
    QPushButton *m_summarize;
    qint64 m_storedId = 0;
};
