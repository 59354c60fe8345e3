import { ClaimConflictRecordSchema, FileClaimSchema } from '@legion-collective/core/vocabulary';
import { z } from 'zod';

/** `GET /api/claims`: the files running turns claimed, in every process on the workspace's store, by path. */
export const ClaimListResponseSchema = z.object({ claims: z.array(FileClaimSchema) });
export type ClaimListResponse = z.infer<typeof ClaimListResponseSchema>;

/** `POST /api/claims/release`: the workspace-relative path to free, as the list names it. */
export const ClaimReleaseRequestSchema = z.object({ path: z.string().min(1) });
export type ClaimReleaseRequest = z.infer<typeof ClaimReleaseRequestSchema>;

/** The claim that was released. */
export const ClaimReleaseResponseSchema = z.object({ released: FileClaimSchema });
export type ClaimReleaseResponse = z.infer<typeof ClaimReleaseResponseSchema>;

/** A write a claim refused, as recorded in the refused caller's session (by any process). */
export const ClaimConflictViewSchema = ClaimConflictRecordSchema.omit({ kind: true, version: true });
export type ClaimConflictView = z.infer<typeof ClaimConflictViewSchema>;

/** `GET /api/sessions/{id}/conflicts`: the session's refused writes, oldest first. */
export const SessionConflictsResponseSchema = z.object({ conflicts: z.array(ClaimConflictViewSchema) });
export type SessionConflictsResponse = z.infer<typeof SessionConflictsResponseSchema>;
