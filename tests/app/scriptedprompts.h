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
    QString exportFileName(QWidget *parent, const QString &title, const QString &filter) override;
    bool confirm(QWidget *parent, const QString &title, const QString &text) override;
    QString chooseItem(QWidget *parent, const QString &title, const QString &label,
                       const QStringList &items) override;
    QString chooseItemOrNew(QWidget *parent, const QString &title, const QString &label,
                            const QStringList &items, const QString &newItem) override;
    QString chooseFolder(QWidget *parent, const QString &title, const QString &startDir) override;
    QStringList openProfileExport(QWidget *parent) override;
    void inform(QWidget *parent, const QString &title, const QString &text) override;
    std::optional<int> askNumber(QWidget *parent, const QString &title, const QString &label, int value,
                                 int minimum, int maximum) override;

    QStringList warnings;
    QStringList saveQuestions;
    QList<SaveChoice> saveAnswers; // consumed front first; Cancel when empty
    QStringList openAnswers;
    QStringList saveAsAnswers;  // consumed front first; empty string = user cancelled
    QStringList exportAnswers;  // consumed front first; cancelled when empty
    QStringList confirmations;  // the questions asked
    QList<bool> confirmAnswers; // consumed front first; no when empty
    QStringList itemAnswers;    // consumed front first; cancelled when empty (chooseItemOrNew too)
    QStringList itemQuestions;  // chooseItemOrNew's: "label [item|item|…] + newItem"
    QStringList folderAnswers;  // consumed front first; cancelled when empty
    QStringList profileExportAnswer; // the files chosen, once (then cleared: cancelled)
    QStringList information;
    QList<int> numberAnswers; // consumed front first; cancelled when empty
};
