#include "scriptedprompts.h"

#include <utility>

#include <algorithm>

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

QString ScriptedPrompts::exportFileName(QWidget *, const QString &, const QString &)
{
    return exportAnswers.isEmpty() ? QString() : exportAnswers.takeFirst();
}

QString ScriptedPrompts::saveFileName(QWidget *, const QString &)
{
    return saveAsAnswers.isEmpty() ? QString() : saveAsAnswers.takeFirst();
}

bool ScriptedPrompts::confirm(QWidget *, const QString &title, const QString &text)
{
    confirmations << title + QStringLiteral(": ") + text;
    return confirmAnswers.isEmpty() ? false : confirmAnswers.takeFirst();
}

QString ScriptedPrompts::chooseItem(QWidget *, const QString &, const QString &, const QStringList &items)
{
    if (itemAnswers.isEmpty())
        return {};
    const QString answer = itemAnswers.takeFirst();
    return items.contains(answer) ? answer : QString();
}

QString ScriptedPrompts::chooseItemOrNew(QWidget *, const QString &, const QString &label,
                                         const QStringList &items, const QString &newItem)
{
    itemQuestions << QStringLiteral("%1 [%2] + %3").arg(label, items.join(u'|'), newItem);
    if (itemAnswers.isEmpty())
        return {};
    const QString answer = itemAnswers.takeFirst();
    return items.contains(answer) || answer == newItem ? answer : QString();
}

QString ScriptedPrompts::chooseFolder(QWidget *, const QString &, const QString &)
{
    return folderAnswers.isEmpty() ? QString() : folderAnswers.takeFirst();
}

QStringList ScriptedPrompts::openProfileExport(QWidget *)
{
    return std::exchange(profileExportAnswer, {});
}

void ScriptedPrompts::inform(QWidget *, const QString &title, const QString &text)
{
    information << title + QStringLiteral(": ") + text;
}

std::optional<int> ScriptedPrompts::askNumber(QWidget *, const QString &, const QString &, int, int minimum,
                                              int maximum)
{
    if (numberAnswers.isEmpty())
        return std::nullopt;
    return std::clamp(numberAnswers.takeFirst(), minimum, maximum);
}
