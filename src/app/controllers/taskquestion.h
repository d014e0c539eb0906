#pragma once

#include "model/taskcatalog.h"
#include "newtaskwizard.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

class AppContext;
class UserPrompts;
class QWidget;

// "Which task does this kernel solve?", asked the same way wherever a kernel needs a task (Benchmark,
// Optimize, Compare's Measure): every usable task the program sees from the kernel's file, labelled by where
// it lives, and beside them New Task from This Kernel…, which runs the wizard.
class TaskQuestion
{
public:
    struct Answer
    {
        QString name;
        QJsonObject ref;      // as in an eval request
        bool created = false; // made just now by the wizard
    };

    // The tasks a kernel at nearPath can be checked against, nearest first, without the broken ones.
    static QList<TaskCatalog::Entry> usable(const QString &shippedDir, const QString &nearPath);
    // "silu" for a shipped task; "row_softmax (project)", "row_softmax (user)" for the others.
    static QString label(const TaskCatalog::Entry &entry);
    static QString originName(const QString &origin); // "project", "user", "NKIBench"
    static QString newTaskItem();                     // "New Task from This Kernel…"

    // Asks; nullopt when the user cancelled the question or the wizard. The wizard's check runs on the
    // context's engine.
    static std::optional<Answer> ask(AppContext *context, UserPrompts *prompts, QWidget *parent,
                                     const QString &title, const QString &question,
                                     const NewTaskWizard::Kernel &kernel, const QString &shippedDir);
    // Runs the wizard for the kernel; nullopt when it was cancelled.
    static std::optional<Answer> create(AppContext *context, UserPrompts *prompts, QWidget *parent,
                                        const NewTaskWizard::Kernel &kernel, const QString &shippedDir);
};
