#include "taskquestion.h"

#include "applogging.h"
#include "userprompts.h"

#include <QObject>

QList<TaskCatalog::Entry> TaskQuestion::usable(const QString &shippedDir, const QString &nearPath)
{
    QList<TaskCatalog::Entry> result;
    for (const TaskCatalog::Entry &entry : TaskCatalog::scanAll(shippedDir, nearPath))
        if (entry.problem.isEmpty())
            result << entry;
    return result;
}

QString TaskQuestion::originName(const QString &origin)
{
    if (origin == QLatin1String("shipped"))
        return QStringLiteral("NKIBench");
    if (origin == QLatin1String("project"))
        return QObject::tr("project");
    if (origin == QLatin1String("user"))
        return QObject::tr("user");
    return origin;
}

QString TaskQuestion::label(const TaskCatalog::Entry &entry)
{
    // The shipped tasks keep their bare names, as scripts and habits know them.
    if (entry.origin.isEmpty() || entry.origin == QLatin1String("shipped"))
        return entry.name;
    return QStringLiteral("%1 (%2)").arg(entry.name, originName(entry.origin));
}

QString TaskQuestion::newTaskItem()
{
    return QObject::tr("New Task from This Kernel…");
}

std::optional<TaskQuestion::Answer>
TaskQuestion::ask(AppContext *context, UserPrompts *prompts, QWidget *parent, const QString &title,
                  const QString &question, const NewTaskWizard::Kernel &kernel, const QString &shippedDir)
{
    const QList<TaskCatalog::Entry> entries = usable(shippedDir, kernel.path);
    QStringList labels;
    for (const TaskCatalog::Entry &entry : entries)
        labels << label(entry);
    const QString chosen = prompts->chooseItemOrNew(parent, title, question, labels, newTaskItem());
    if (chosen.isEmpty())
        return std::nullopt;
    if (chosen == newTaskItem())
        return create(context, prompts, parent, kernel, shippedDir);
    const TaskCatalog::Entry &entry = entries.at(labels.indexOf(chosen));
    return Answer{entry.name, entry.ref(), false};
}

std::optional<TaskQuestion::Answer> TaskQuestion::create(AppContext *context, UserPrompts *prompts,
                                                         QWidget *parent, const NewTaskWizard::Kernel &kernel,
                                                         const QString &shippedDir)
{
    NewTaskWizard wizard(context, kernel, shippedDir, prompts, parent);
    if (wizard.exec() != QDialog::Accepted || wizard.createdFolder().isEmpty())
        return std::nullopt;
    qCInfo(lcApp).noquote() << "created task" << wizard.createdName() << "in" << wizard.createdFolder();
    return Answer{wizard.createdName(), QJsonObject{{QStringLiteral("dir"), wizard.createdFolder()}}, true};
}
