import { FileClaimSchema } from '@legion-collective/core/vocabulary';
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
