#pragma once

#include <QUndoCommand>

#include <functional>

// One change to the memory database that the Memory dock can undo: a pin, an edit, a delete. Each side is a
// store call; when one fails (the file went read-only, another program removed the row) the failure is
// reported and the command is made obsolete, so the undo stack never claims a state the file does not have.
class MemoryUndoCommand : public QUndoCommand
{
public:
    using Step = std::function<bool()>;
    MemoryUndoCommand(const QString &text, Step apply, Step revert, std::function<void()> failed);

    void redo() override;
    void undo() override;

private:
    Step m_apply;
    Step m_revert;
    std::function<void()> m_failed;
};
