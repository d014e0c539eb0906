#pragma once

#include "userprompts.h"

#include <QList>
#include <QStringList>

// Answers the workbench's questions from a script and records what it was told, so GUI tests never block
// on a modal dialog and can assert on the exact message the user would have seen.
class ScriptedPrompts : public UserPrompts
{
public:
    void warn(QWidget *parent, const QString &title, const QString &text) override;
    SaveChoice askSaveChanges(QWidget *parent, const QString &documentName) override;
    QStringList openFileNames(QWidget *parent, const QString &startDir) override;
    QString saveFileName(QWidget *parent, const QString &suggestedPath) override;

    QStringList warnings;
    QStringList saveQuestions;
    QList<SaveChoice> saveAnswers; // consumed front first; Cancel when empty
    QStringList openAnswers;
    QStringList saveAsAnswers; // consumed front first; empty string = user cancelled
};
