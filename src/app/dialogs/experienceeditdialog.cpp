#include "experienceeditdialog.h"

#include "memory/experiencejson.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

ExperienceEditDialog::ExperienceEditDialog(const QString &title, const QString &lesson, QWidget *parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Edit Experience"));
    m_title = new QLineEdit(title, this);
    m_lesson = new QPlainTextEdit(lesson, this);
    m_lesson->setTabChangesFocus(true);
    m_problem = new QLabel(this);
    m_problem->setWordWrap(true);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    auto *form = new QFormLayout;
    form->addRow(tr("&Title:"), m_title);
    form->addRow(tr("&Lesson (Markdown):"), m_lesson);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_problem);
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_title, &QLineEdit::textChanged, this, &ExperienceEditDialog::check);
    connect(m_lesson, &QPlainTextEdit::textChanged, this, &ExperienceEditDialog::check);
    resize(640, 420);
    check();
}

QString ExperienceEditDialog::title() const
{
    return m_title->text().trimmed();
}

QString ExperienceEditDialog::lesson() const
{
    return m_lesson->toPlainText().trimmed();
}

void ExperienceEditDialog::check()
{
    QString problem;
    if (title().isEmpty())
        problem = tr("The title must not be empty.");
    else if (lesson().isEmpty())
        problem = tr("The lesson must not be empty.");
    else if (title().size() > ExperienceJson::maxTitleChars)
        problem = tr("The title has %1 characters; the limit is %2.")
                      .arg(title().size())
                      .arg(ExperienceJson::maxTitleChars);
    else if (lesson().size() > ExperienceJson::maxLessonChars)
        problem = tr("The lesson has %1 characters; the limit is %2.")
                      .arg(lesson().size())
                      .arg(ExperienceJson::maxLessonChars);
    m_problem->setText(problem);
    m_problem->setVisible(!problem.isEmpty());
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(problem.isEmpty());
}
