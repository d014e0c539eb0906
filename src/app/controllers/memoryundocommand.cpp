#include "memoryundocommand.h"

MemoryUndoCommand::MemoryUndoCommand(const QString &text, Step apply, Step revert)
    : QUndoCommand(text), m_apply(std::move(apply)), m_revert(std::move(revert))
{
}

void MemoryUndoCommand::redo()
{
    if (isObsolete())
        return; // failed before: the stack drops it without running it again
    m_job = m_apply();
    m_redone = true;
}

void MemoryUndoCommand::undo()
{
    if (isObsolete())
        return;
    m_job = m_revert();
    m_redone = false;
}
