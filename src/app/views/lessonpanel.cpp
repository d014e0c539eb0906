#include "lessonpanel.h"

#include <QLabel>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

LessonPanel::LessonPanel(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 0, 0, 0);
    auto *heading = new QLabel(tr("<b>Lesson</b>"), this);
    m_state = new QLabel(this);
    m_state->setWordWrap(true);
    m_text = new QTextBrowser(this);
    m_text->setOpenLinks(false);
    m_summarize = new QPushButton(tr("Summarize…"), this);
    m_summarize->setToolTip(tr("Ask the summarizer model what this change teaches, and keep it in the memory"));
    layout->addWidget(heading);
    layout->addWidget(m_state);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_summarize, 0, Qt::AlignLeft);
    layout->addStretch(); // keeps the state and the button at the top while there is no lesson to show
    connect(m_summarize, &QPushButton::clicked, this, &LessonPanel::summarizeRequested);
    showLooking();
}

void LessonPanel::showLooking()
{
    m_storedId = 0;
    m_state->setText(tr("Looking in the memory…"));
    m_text->clear();
    m_text->hide();
    m_summarize->hide();
}

void LessonPanel::showLesson(const ExperienceRecord &record, bool stored)
{
    const Experience &e = record.experience;
    m_storedId = stored ? record.id : 0;
    m_state->setText(stored ? tr("From the optimization memory (%1, %2)")
                                  .arg(record.kindName(), record.task.isEmpty() ? tr("no task") : record.task)
                            : tr("The summarizer's draft; not stored"));
    const auto code = [](const QString &snippet) {
        return snippet.isEmpty() ? QString()
                                 : QStringLiteral("<pre style=\"background:palette(alternate-base)\">%1</pre>")
                                       .arg(snippet.toHtmlEscaped());
    };
    m_text->setHtml(QStringLiteral("<h3>%1</h3><p>%2</p><p><i>%3</i></p>%4%5%6%7")
                        .arg(e.title.toHtmlEscaped(), e.lesson.toHtmlEscaped().replace(u'\n', QStringLiteral("<br>")),
                             tr("Measured: %1× %2").arg(e.speedup, 0, 'f', 3).arg(e.isNegative() ? tr("(a slowdown)") : QString()),
                             e.snippetBefore.isEmpty() ? QString() : tr("<p><b>Before</b></p>"), code(e.snippetBefore),
                             e.snippetAfter.isEmpty() ? QString() : tr("<p><b>After</b></p>"), code(e.snippetAfter)));
    m_text->show();
    m_summarize->hide();
}

void LessonPanel::showNoLesson(const QString &whyNot)
{
    m_storedId = 0;
    m_state->setText(whyNot.isEmpty() ? tr("No lesson yet for this pair.")
                                      : tr("No lesson yet for this pair. %1").arg(whyNot));
    m_text->hide();
    m_summarize->show();
    m_summarize->setEnabled(whyNot.isEmpty());
}

void LessonPanel::offerSummarize()
{
    m_summarize->show();
    m_summarize->setEnabled(true);
}

void LessonPanel::showSummarizing()
{
    m_state->setText(tr("Asking the summarizer…"));
    m_summarize->setEnabled(false);
}

void LessonPanel::showError(const QString &error, const QString &whyNot)
{
    showNoLesson(whyNot);
    m_state->setText(m_state->text() + u'\n' + error);
}

bool LessonPanel::showsLesson() const
{
    return !m_text->isHidden();
}
