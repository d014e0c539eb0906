#include "scriptedprompts.h"

void ScriptedPrompts::warn(QWidget *, const QString &title, const QString &text)
{
    warnings << title + QStringLiteral(": ") + text;
}

UserPrompts::SaveChoice ScriptedPrompts::askSaveChanges(QWidget *, const QString &documentName)
{
    saveQuestions << documentName;
    return saveAnswers.isEmpty() ? SaveChoice::Cancel : saveAnswers.takeFirst();
}

QStringList ScriptedPrompts::openFileNames(QWidget *, const QString &)
{
    return openAnswers;
}

QString ScriptedPrompts::saveFileName(QWidget *, const QString &)
{
    return saveAsAnswers.isEmpty() ? QString() : saveAsAnswers.takeFirst();
}
