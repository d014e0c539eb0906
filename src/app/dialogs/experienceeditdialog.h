#pragma once

#include <QDialog>

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;

// Edits an experience's title and lesson (Markdown). OK stays disabled while either is empty or over the
// memory's size caps, with the reason shown, so what the dialog accepts the store accepts.
class ExperienceEditDialog : public QDialog
{
    Q_OBJECT
public:
    ExperienceEditDialog(const QString &title, const QString &lesson, QWidget *parent = nullptr);

    QString title() const;
    QString lesson() const;
    QLineEdit *titleEdit() const { return m_title; }
    QPlainTextEdit *lessonEdit() const { return m_lesson; }

private:
    void check();

    QLineEdit *m_title;
    QPlainTextEdit *m_lesson;
    QLabel *m_problem;
    QDialogButtonBox *m_buttons;
};
